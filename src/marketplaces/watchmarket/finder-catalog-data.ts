/**
 * The shipped Chrono24 filter catalog: every filter group and code marketlens knows (spec §2.1; notes
 * ../shared/upstreams/chrono24.md §2 and §4: quick-filter pills and SEO links of the 2026 capture, the code tables
 * public scrapers keep). `id` is Chrono24's URL parameter, `param` the watchmarket search parameter.
 *
 * Refreshed by `npx tsx scripts/refresh-watchmarket-catalog.ts` (merges codes found on the live pages; never drops).
 */
import type { CatalogGroup } from './schema.js';

export const FINDER_CATALOG: CatalogGroup[] = [
  {
    "id": "manufacturerIds",
    "param": "manufacturer",
    "label": "Brand",
    "inputType": "Checkbox",
    "searchable": true,
    "values": [
      {
        "label": "Audemars Piguet",
        "code": "18"
      },
      {
        "label": "Rolex",
        "code": "221"
      }
    ]
  },
  {
    "id": "models",
    "param": "model",
    "label": "Model",
    "inputType": "Checkbox",
    "searchable": true,
    "values": [
      {
        "label": "GMT-Master II",
        "code": "4"
      },
      {
        "label": "Submariner Date",
        "code": "981"
      },
      {
        "label": "Submariner (No Date)",
        "code": "2460"
      },
      {
        "label": "Datejust 31",
        "code": "3023"
      }
    ]
  },
  {
    "id": "caseMaterials",
    "param": "case_material",
    "label": "Case material",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Aluminum",
        "code": "6"
      },
      {
        "label": "Brass",
        "code": "19"
      },
      {
        "label": "Bronze",
        "code": "18"
      },
      {
        "label": "Carbon",
        "code": "17"
      },
      {
        "label": "Ceramic",
        "code": "13"
      },
      {
        "label": "Gold/Steel",
        "code": "9"
      },
      {
        "label": "Gold-plated",
        "code": "20"
      },
      {
        "label": "Palladium",
        "code": "14"
      },
      {
        "label": "Plastic",
        "code": "12"
      },
      {
        "label": "Platinum",
        "code": "7"
      },
      {
        "label": "Red gold",
        "code": "2"
      },
      {
        "label": "Rose gold",
        "code": "1"
      },
      {
        "label": "Sapphire crystal",
        "code": "21"
      },
      {
        "label": "Silver",
        "code": "10"
      },
      {
        "label": "Steel",
        "code": "4"
      },
      {
        "label": "Tantalum",
        "code": "16"
      },
      {
        "label": "Titanium",
        "code": "5"
      },
      {
        "label": "Tungsten",
        "code": "15"
      },
      {
        "label": "White gold",
        "code": "8"
      },
      {
        "label": "Yellow gold",
        "code": "3"
      },
      {
        "label": "No details",
        "code": "0"
      }
    ]
  },
  {
    "id": "dialColor",
    "param": "dial_color",
    "label": "Dial color",
    "inputType": "IllustrationCheckbox",
    "searchable": false,
    "values": [
      {
        "label": "Black",
        "code": "702"
      },
      {
        "label": "Blue",
        "code": "710"
      },
      {
        "label": "Bordeaux",
        "code": "711"
      },
      {
        "label": "Bronze",
        "code": "712"
      },
      {
        "label": "Brown",
        "code": "723"
      },
      {
        "label": "Champagne",
        "code": "709"
      },
      {
        "label": "Gold",
        "code": "714"
      },
      {
        "label": "Gold (solid)",
        "code": "705"
      },
      {
        "label": "Green",
        "code": "716"
      },
      {
        "label": "Grey",
        "code": "715"
      },
      {
        "label": "Meteorite",
        "code": "725"
      },
      {
        "label": "Mother of pearl",
        "code": "707"
      },
      {
        "label": "Orange",
        "code": "719"
      },
      {
        "label": "Pink",
        "code": "722"
      },
      {
        "label": "Purple",
        "code": "721"
      },
      {
        "label": "Red",
        "code": "720"
      },
      {
        "label": "Silver",
        "code": "708"
      },
      {
        "label": "Silver (solid)",
        "code": "706"
      },
      {
        "label": "Skeletonized",
        "code": "726"
      },
      {
        "label": "Skeletonized",
        "code": "704"
      },
      {
        "label": "Turquoise",
        "code": "724"
      },
      {
        "label": "White",
        "code": "701"
      },
      {
        "label": "Yellow",
        "code": "713"
      },
      {
        "label": "No details",
        "code": "0"
      }
    ]
  },
  {
    "id": "dialNumbers",
    "param": "dial_numbers",
    "label": "Dial numbers",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Arabic numerals",
        "code": "801"
      },
      {
        "label": "Roman numerals",
        "code": "802"
      },
      {
        "label": "No numerals",
        "code": "803"
      },
      {
        "label": "Gemstones",
        "code": "804"
      },
      {
        "label": "Lines",
        "code": "805"
      },
      {
        "label": "No details",
        "code": "0"
      }
    ]
  },
  {
    "id": "glass",
    "param": "glass",
    "label": "Crystal",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Plastic",
        "code": "201"
      },
      {
        "label": "Plexiglass",
        "code": "202"
      },
      {
        "label": "Glass",
        "code": "203"
      },
      {
        "label": "Mineral glass",
        "code": "204"
      },
      {
        "label": "Sapphire crystal",
        "code": "205"
      },
      {
        "label": "No details",
        "code": "0"
      }
    ]
  },
  {
    "id": "braceletMaterial",
    "param": "bracelet_material",
    "label": "Bracelet material",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Calf skin",
        "code": "401"
      },
      {
        "label": "Ostrich skin",
        "code": "402"
      },
      {
        "label": "Crocodile skin",
        "code": "403"
      },
      {
        "label": "Leather",
        "code": "404"
      },
      {
        "label": "Snake skin",
        "code": "405"
      },
      {
        "label": "Plastic",
        "code": "406"
      },
      {
        "label": "Steel",
        "code": "407"
      },
      {
        "label": "Titanium",
        "code": "409"
      },
      {
        "label": "Gold/Steel",
        "code": "410"
      },
      {
        "label": "Rose gold",
        "code": "411"
      },
      {
        "label": "Red gold",
        "code": "412"
      },
      {
        "label": "Yellow gold",
        "code": "413"
      },
      {
        "label": "Aluminium",
        "code": "414"
      },
      {
        "label": "Platinum",
        "code": "415"
      },
      {
        "label": "White gold",
        "code": "416"
      },
      {
        "label": "Silver",
        "code": "417"
      },
      {
        "label": "Rubber",
        "code": "418"
      },
      {
        "label": "Shark skin",
        "code": "419"
      },
      {
        "label": "Satin",
        "code": "420"
      },
      {
        "label": "Ceramic",
        "code": "421"
      },
      {
        "label": "Lizard skin",
        "code": "422"
      },
      {
        "label": "Silicon",
        "code": "423"
      },
      {
        "label": "Alligator skin",
        "code": "424"
      },
      {
        "label": "Brass",
        "code": "425"
      },
      {
        "label": "Gold-plated",
        "code": "426"
      },
      {
        "label": "Textile",
        "code": "2017"
      },
      {
        "label": "No details",
        "code": "0"
      }
    ]
  },
  {
    "id": "braceletColor",
    "param": "bracelet_color",
    "label": "Bracelet color",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Black",
        "code": "601"
      },
      {
        "label": "Brown",
        "code": "602"
      },
      {
        "label": "Silver",
        "code": "603"
      },
      {
        "label": "Gold",
        "code": "604"
      },
      {
        "label": "Steel",
        "code": "605"
      },
      {
        "label": "Beige",
        "code": "606"
      },
      {
        "label": "Blue",
        "code": "607"
      },
      {
        "label": "Bordeaux",
        "code": "608"
      },
      {
        "label": "Bronze",
        "code": "609"
      },
      {
        "label": "Yellow",
        "code": "610"
      },
      {
        "label": "Grey",
        "code": "611"
      },
      {
        "label": "Green",
        "code": "612"
      },
      {
        "label": "Orange",
        "code": "615"
      },
      {
        "label": "Red",
        "code": "616"
      },
      {
        "label": "Purple",
        "code": "617"
      },
      {
        "label": "White",
        "code": "618"
      },
      {
        "label": "Pink",
        "code": "619"
      },
      {
        "label": "Gold/Steel",
        "code": "620"
      },
      {
        "label": "No details",
        "code": "0"
      }
    ]
  },
  {
    "id": "clasp",
    "param": "clasp",
    "label": "Clasp",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Fold clasp",
        "code": "501"
      },
      {
        "label": "Fold clasp, hidden",
        "code": "502"
      },
      {
        "label": "Double-fold clasp",
        "code": "503"
      },
      {
        "label": "Buckle",
        "code": "504"
      },
      {
        "label": "Jewelry clasp",
        "code": "505"
      },
      {
        "label": "No clasp",
        "code": "506"
      },
      {
        "label": "No details",
        "code": "0"
      }
    ]
  },
  {
    "id": "claspMaterial",
    "param": "clasp_material",
    "label": "Clasp material",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Plastic",
        "code": "1101"
      },
      {
        "label": "Steel",
        "code": "1102"
      },
      {
        "label": "Silver",
        "code": "1103"
      },
      {
        "label": "Titanium",
        "code": "1104"
      },
      {
        "label": "Gold/Steel",
        "code": "1105"
      },
      {
        "label": "Rose gold",
        "code": "1106"
      },
      {
        "label": "Red gold",
        "code": "1107"
      },
      {
        "label": "Yellow gold",
        "code": "1108"
      },
      {
        "label": "Aluminum",
        "code": "1109"
      },
      {
        "label": "Platinum",
        "code": "1110"
      },
      {
        "label": "White gold",
        "code": "1111"
      },
      {
        "label": "Bronze",
        "code": "1112"
      },
      {
        "label": "No details",
        "code": "0"
      }
    ]
  },
  {
    "id": "movementTypes",
    "param": "movement_type",
    "label": "Movement",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Automatic",
        "code": "1"
      },
      {
        "label": "Manual winding",
        "code": "2"
      },
      {
        "label": "Quartz",
        "code": "3"
      },
      {
        "label": "Solar",
        "code": "4"
      },
      {
        "label": "Smartwatch",
        "code": "5"
      },
      {
        "label": "No details",
        "code": "0"
      }
    ]
  },
  {
    "id": "waterproof",
    "param": "waterproof",
    "label": "Water resistance",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Not water resistant",
        "code": "901"
      },
      {
        "label": "1 ATM",
        "code": "902"
      },
      {
        "label": "2 ATM",
        "code": "903"
      },
      {
        "label": "2.5 ATM",
        "code": "1350"
      },
      {
        "label": "3 ATM",
        "code": "904"
      },
      {
        "label": "4 ATM",
        "code": "905"
      },
      {
        "label": "5 ATM",
        "code": "906"
      },
      {
        "label": "6 ATM",
        "code": "907"
      },
      {
        "label": "7 ATM",
        "code": "908"
      },
      {
        "label": "8 ATM",
        "code": "909"
      },
      {
        "label": "9 ATM",
        "code": "910"
      },
      {
        "label": "10 ATM",
        "code": "911"
      },
      {
        "label": "15 ATM",
        "code": "1351"
      },
      {
        "label": "20 ATM",
        "code": "912"
      },
      {
        "label": "30 ATM",
        "code": "913"
      },
      {
        "label": "40 ATM",
        "code": "914"
      },
      {
        "label": "50 ATM",
        "code": "915"
      },
      {
        "label": "60 ATM",
        "code": "916"
      },
      {
        "label": "70 ATM",
        "code": "917"
      },
      {
        "label": "80 ATM",
        "code": "918"
      },
      {
        "label": "90 ATM",
        "code": "919"
      },
      {
        "label": "100 ATM",
        "code": "920"
      },
      {
        "label": "110 ATM",
        "code": "921"
      },
      {
        "label": "120 ATM",
        "code": "922"
      },
      {
        "label": "Over 120 ATM",
        "code": "923"
      },
      {
        "label": "No details",
        "code": "0"
      }
    ]
  },
  {
    "id": "bezelMaterial",
    "param": "bezel_material",
    "label": "Bezel material",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Aluminum",
        "code": "1601"
      },
      {
        "label": "Carbon",
        "code": "1602"
      },
      {
        "label": "Ceramic",
        "code": "1603"
      },
      {
        "label": "Gold/Steel",
        "code": "1604"
      },
      {
        "label": "Palladium",
        "code": "1605"
      },
      {
        "label": "Rose gold",
        "code": "1606"
      },
      {
        "label": "Plastic",
        "code": "1607"
      },
      {
        "label": "Platinum",
        "code": "1608"
      },
      {
        "label": "Red gold",
        "code": "1609"
      },
      {
        "label": "Silver",
        "code": "1610"
      },
      {
        "label": "Steel",
        "code": "1611"
      },
      {
        "label": "Tantalum",
        "code": "1612"
      },
      {
        "label": "Titanium",
        "code": "1613"
      },
      {
        "label": "Tungsten",
        "code": "1614"
      },
      {
        "label": "White gold",
        "code": "1615"
      },
      {
        "label": "Yellow gold",
        "code": "1616"
      },
      {
        "label": "Bronze",
        "code": "1617"
      },
      {
        "label": "Gem-set",
        "code": "1618"
      },
      {
        "label": "Brass",
        "code": "1619"
      },
      {
        "label": "Gold-plated",
        "code": "1620"
      },
      {
        "label": "Rubber",
        "code": "1621"
      },
      {
        "label": "No details",
        "code": "0"
      }
    ]
  },
  {
    "id": "functions",
    "param": "functions",
    "label": "Functions",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Chronograph",
        "code": "1000"
      },
      {
        "label": "Double chronograph",
        "code": "1010"
      },
      {
        "label": "Flyback",
        "code": "1011"
      },
      {
        "label": "Panorama date",
        "code": "1012"
      },
      {
        "label": "Repeater",
        "code": "1013"
      },
      {
        "label": "Tourbillon",
        "code": "1014"
      },
      {
        "label": "Annual calendar",
        "code": "1015"
      },
      {
        "label": "4-year calendar",
        "code": "1016"
      },
      {
        "label": "Perpetual calendar",
        "code": "1017"
      },
      {
        "label": "Alarm",
        "code": "1018"
      },
      {
        "label": "Chiming clock",
        "code": "1019"
      },
      {
        "label": "Moon phase",
        "code": "1020"
      },
      {
        "label": "Minute repeater",
        "code": "1021"
      },
      {
        "label": "Date",
        "code": "1022"
      },
      {
        "label": "Weekday",
        "code": "1023"
      },
      {
        "label": "Month",
        "code": "1024"
      },
      {
        "label": "Year",
        "code": "1025"
      },
      {
        "label": "Tachymeter",
        "code": "1026"
      },
      {
        "label": "Jumping hour",
        "code": "1027"
      },
      {
        "label": "Equation of time",
        "code": "1028"
      },
      {
        "label": "GMT",
        "code": "1360"
      }
    ]
  },
  {
    "id": "watchCategories",
    "param": "watch_category",
    "label": "Watch category",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Wristwatch",
        "code": "301"
      },
      {
        "label": "Pocket watch",
        "code": "302"
      },
      {
        "label": "Other watches / clocks",
        "code": "303"
      }
    ]
  },
  {
    "id": "gender",
    "param": "gender",
    "label": "Gender",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Men's watch/Unisex",
        "code": "1401"
      },
      {
        "label": "Women's watch",
        "code": "1402"
      }
    ]
  },
  {
    "id": "styles",
    "param": "styles",
    "label": "Styles",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Racing watches",
        "code": "1801"
      },
      {
        "label": "Sailing watches",
        "code": "1802"
      },
      {
        "label": "Pilot's watches",
        "code": "1803"
      },
      {
        "label": "Diving watches",
        "code": "1804"
      },
      {
        "label": "Dress watches",
        "code": "1805"
      },
      {
        "label": "Sports watches",
        "code": "1806"
      },
      {
        "label": "Military watches",
        "code": "1807"
      },
      {
        "label": "Business watches",
        "code": "1809"
      },
      {
        "label": "Vintage watches",
        "code": "1810"
      },
      {
        "label": "Automatic watches",
        "code": "1811"
      },
      {
        "label": "Chronographs",
        "code": "1812"
      },
      {
        "label": "Chronometer",
        "code": "1813"
      },
      {
        "label": "One-hand watches",
        "code": "1815"
      },
      {
        "label": "Perpetual calendar watches",
        "code": "1816"
      },
      {
        "label": "Thin watches",
        "code": "1817"
      },
      {
        "label": "Flyback chronographs",
        "code": "1818"
      },
      {
        "label": "Large XXL watches",
        "code": "1819"
      },
      {
        "label": "Calendar watches",
        "code": "1821"
      },
      {
        "label": "Limited edition watches",
        "code": "1822"
      },
      {
        "label": "Left-handed watches",
        "code": "1823"
      },
      {
        "label": "Mechanical watches",
        "code": "1824"
      },
      {
        "label": "Minute repeater",
        "code": "1825"
      },
      {
        "label": "Moon phase watches",
        "code": "1826"
      },
      {
        "label": "Quartz watches",
        "code": "1827"
      },
      {
        "label": "Russian watches",
        "code": "1828"
      },
      {
        "label": "Sapphire glass watches",
        "code": "1829"
      },
      {
        "label": "Swiss watches",
        "code": "1830"
      },
      {
        "label": "Skeleton watches",
        "code": "1831"
      },
      {
        "label": "Smartwatches",
        "code": "1832"
      },
      {
        "label": "Solar watches",
        "code": "1833"
      },
      {
        "label": "Tonneau watches",
        "code": "1835"
      },
      {
        "label": "Tourbillon watches",
        "code": "1836"
      },
      {
        "label": "Tachymeter watches",
        "code": "1837"
      },
      {
        "label": "Watches from German manufacturers",
        "code": "1838"
      },
      {
        "label": "Watches with Geneva seal",
        "code": "1839"
      },
      {
        "label": "Watches with see-through case back",
        "code": "1840"
      },
      {
        "label": "Manually wound watches",
        "code": "1841"
      },
      {
        "label": "Rectangular watches",
        "code": "1842"
      },
      {
        "label": "World time watches",
        "code": "1843"
      }
    ]
  },
  {
    "id": "condition",
    "param": "condition",
    "label": "Condition",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "New",
        "code": "101"
      },
      {
        "label": "Like new & unworn",
        "code": "1301"
      },
      {
        "label": "Very good",
        "code": "1302"
      },
      {
        "label": "Good",
        "code": "1306"
      },
      {
        "label": "Fair",
        "code": "1303"
      },
      {
        "label": "Incomplete",
        "code": "1305"
      },
      {
        "label": "No details",
        "code": "0"
      }
    ]
  },
  {
    "id": "usedOrNew",
    "param": "used_or_new",
    "label": "New/Used",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "New/Unworn",
        "code": "new"
      },
      {
        "label": "Used",
        "code": "used"
      },
      {
        "label": "No details",
        "code": "NODATA"
      }
    ]
  },
  {
    "id": "certified",
    "param": "common_certified",
    "label": "Certified",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Certified",
        "code": "true"
      }
    ]
  },
  {
    "id": "sellerType",
    "param": "seller_type",
    "label": "Seller",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Chrono24 Direct",
        "code": "C24Direct"
      },
      {
        "label": "Private seller",
        "code": "PrivateSeller"
      },
      {
        "label": "Professional dealer",
        "code": "Dealer"
      }
    ]
  },
  {
    "id": "dealerPerformanceAttributes",
    "param": "dealer_performance_attributes",
    "label": "Dealer badges",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Fast shipper",
        "code": "FastShipper"
      },
      {
        "label": "Highly rated",
        "code": "TopRating"
      },
      {
        "label": "Punctuality",
        "code": "Punctuality"
      },
      {
        "label": "Response time",
        "code": "Reaction"
      }
    ]
  },
  {
    "id": "countryIds",
    "param": "country",
    "label": "Seller location",
    "inputType": "Checkbox",
    "searchable": true,
    "values": [
      {
        "label": "Afghanistan",
        "code": "AF"
      },
      {
        "label": "Albania",
        "code": "AL"
      },
      {
        "label": "Algeria",
        "code": "DZ"
      },
      {
        "label": "Andorra",
        "code": "AD"
      },
      {
        "label": "Angola",
        "code": "AO"
      },
      {
        "label": "Argentina",
        "code": "AR"
      },
      {
        "label": "Armenia",
        "code": "AM"
      },
      {
        "label": "Aruba",
        "code": "AW"
      },
      {
        "label": "Australia",
        "code": "AU"
      },
      {
        "label": "Austria",
        "code": "AT"
      },
      {
        "label": "Azerbaijan",
        "code": "AZ"
      },
      {
        "label": "Bahamas",
        "code": "BS"
      },
      {
        "label": "Bahrain",
        "code": "BH"
      },
      {
        "label": "Barbados",
        "code": "BB"
      },
      {
        "label": "Belarus",
        "code": "BY"
      },
      {
        "label": "Belgium",
        "code": "BE"
      },
      {
        "label": "Belize",
        "code": "BZ"
      },
      {
        "label": "Bermuda",
        "code": "BM"
      },
      {
        "label": "Bhutan",
        "code": "BT"
      },
      {
        "label": "Bolivia",
        "code": "BO"
      },
      {
        "label": "Bosnia and Herzegovina",
        "code": "BA"
      },
      {
        "label": "Botswana",
        "code": "BW"
      },
      {
        "label": "Brazil",
        "code": "BR"
      },
      {
        "label": "Brunei",
        "code": "BN"
      },
      {
        "label": "Bulgaria",
        "code": "BG"
      },
      {
        "label": "Canada",
        "code": "CA"
      },
      {
        "label": "Central African Republic",
        "code": "CF"
      },
      {
        "label": "Chile",
        "code": "CL"
      },
      {
        "label": "China",
        "code": "CN"
      },
      {
        "label": "Colombia",
        "code": "CO"
      },
      {
        "label": "Costa Rica",
        "code": "CR"
      },
      {
        "label": "Croatia",
        "code": "HR"
      },
      {
        "label": "Cyprus",
        "code": "CY"
      },
      {
        "label": "Czech Republic",
        "code": "CZ"
      },
      {
        "label": "Denmark",
        "code": "DK"
      },
      {
        "label": "Dominican Republic",
        "code": "DO"
      },
      {
        "label": "Ecuador",
        "code": "EC"
      },
      {
        "label": "Egypt",
        "code": "EG"
      },
      {
        "label": "El Salvador",
        "code": "SV"
      },
      {
        "label": "Estonia",
        "code": "EE"
      },
      {
        "label": "Ethiopia",
        "code": "ET"
      },
      {
        "label": "Finland",
        "code": "FI"
      },
      {
        "label": "France",
        "code": "FR"
      },
      {
        "label": "Georgia",
        "code": "GE"
      },
      {
        "label": "Germany",
        "code": "DE"
      },
      {
        "label": "Gibraltar",
        "code": "GI"
      },
      {
        "label": "Greece",
        "code": "GR"
      },
      {
        "label": "Guadeloupe",
        "code": "GP"
      },
      {
        "label": "Guam",
        "code": "GU"
      },
      {
        "label": "Guatemala",
        "code": "GT"
      },
      {
        "label": "Haiti",
        "code": "HT"
      },
      {
        "label": "Hong Kong",
        "code": "HK"
      },
      {
        "label": "Hungary",
        "code": "HU"
      },
      {
        "label": "Iceland",
        "code": "IS"
      },
      {
        "label": "India",
        "code": "IN"
      },
      {
        "label": "Indonesia",
        "code": "ID"
      },
      {
        "label": "Iraq",
        "code": "IQ"
      },
      {
        "label": "Ireland",
        "code": "IE"
      },
      {
        "label": "Israel",
        "code": "IL"
      },
      {
        "label": "Italy",
        "code": "IT"
      },
      {
        "label": "Jamaica",
        "code": "JM"
      },
      {
        "label": "Japan",
        "code": "JP"
      },
      {
        "label": "Jordan",
        "code": "JO"
      },
      {
        "label": "Kazakhstan",
        "code": "KZ"
      },
      {
        "label": "Kuwait",
        "code": "KW"
      },
      {
        "label": "Kyrgyzstan",
        "code": "KG"
      },
      {
        "label": "Latvia",
        "code": "LV"
      },
      {
        "label": "Lebanon",
        "code": "LB"
      },
      {
        "label": "Liechtenstein",
        "code": "LI"
      },
      {
        "label": "Lithuania",
        "code": "LT"
      },
      {
        "label": "Luxembourg",
        "code": "LU"
      },
      {
        "label": "Macao",
        "code": "MO"
      },
      {
        "label": "Macedonia",
        "code": "MK"
      },
      {
        "label": "Madagascar",
        "code": "MG"
      },
      {
        "label": "Malaysia",
        "code": "MY"
      },
      {
        "label": "Maldives",
        "code": "MV"
      },
      {
        "label": "Malta",
        "code": "MT"
      },
      {
        "label": "Martinique",
        "code": "MQ"
      },
      {
        "label": "Mauritius",
        "code": "MU"
      },
      {
        "label": "Mayotte",
        "code": "YT"
      },
      {
        "label": "Mexico",
        "code": "MX"
      },
      {
        "label": "Moldova",
        "code": "MD"
      },
      {
        "label": "Monaco",
        "code": "MC"
      },
      {
        "label": "Montenegro",
        "code": "ME"
      },
      {
        "label": "Morocco",
        "code": "MA"
      },
      {
        "label": "Nepal",
        "code": "NP"
      },
      {
        "label": "Netherlands",
        "code": "NL"
      },
      {
        "label": "Netherlands Antilles",
        "code": "AN"
      },
      {
        "label": "New Caledonia",
        "code": "NC"
      },
      {
        "label": "New Zealand",
        "code": "NZ"
      },
      {
        "label": "Norway",
        "code": "NO"
      },
      {
        "label": "Oman",
        "code": "OM"
      },
      {
        "label": "Pakistan",
        "code": "PK"
      },
      {
        "label": "Panama",
        "code": "PA"
      },
      {
        "label": "Paraguay",
        "code": "PY"
      },
      {
        "label": "Peru",
        "code": "PE"
      },
      {
        "label": "Philippines",
        "code": "PH"
      },
      {
        "label": "Pitcairn Islands",
        "code": "PN"
      },
      {
        "label": "Poland",
        "code": "PL"
      },
      {
        "label": "Portugal",
        "code": "PT"
      },
      {
        "label": "Puerto Rico",
        "code": "PR"
      },
      {
        "label": "Qatar",
        "code": "QA"
      },
      {
        "label": "Réunion",
        "code": "RE"
      },
      {
        "label": "Romania",
        "code": "RO"
      },
      {
        "label": "Russia",
        "code": "RU"
      },
      {
        "label": "Rwanda",
        "code": "RW"
      },
      {
        "label": "Saint Barthélemy",
        "code": "BL"
      },
      {
        "label": "Saint Kitts and Nevis",
        "code": "KN"
      },
      {
        "label": "Saint Vincent and the Grenadines",
        "code": "VC"
      },
      {
        "label": "San Marino",
        "code": "SM"
      },
      {
        "label": "Saudi Arabia",
        "code": "SA"
      },
      {
        "label": "Serbia",
        "code": "RS"
      },
      {
        "label": "Singapore",
        "code": "SG"
      },
      {
        "label": "Slovakia",
        "code": "SK"
      },
      {
        "label": "Slovenia",
        "code": "SI"
      },
      {
        "label": "South Africa",
        "code": "ZA"
      },
      {
        "label": "South Korea",
        "code": "KR"
      },
      {
        "label": "Spain",
        "code": "ES"
      },
      {
        "label": "Sri Lanka",
        "code": "LK"
      },
      {
        "label": "Swaziland",
        "code": "SZ"
      },
      {
        "label": "Sweden",
        "code": "SE"
      },
      {
        "label": "Switzerland",
        "code": "CH"
      },
      {
        "label": "Taiwan",
        "code": "TW"
      },
      {
        "label": "Tanzania",
        "code": "TZ"
      },
      {
        "label": "Thailand",
        "code": "TH"
      },
      {
        "label": "Togo",
        "code": "TG"
      },
      {
        "label": "Trinidad and Tobago",
        "code": "TT"
      },
      {
        "label": "Turkey",
        "code": "TR"
      },
      {
        "label": "Ukraine",
        "code": "UA"
      },
      {
        "label": "United Arab Emirates",
        "code": "AE"
      },
      {
        "label": "United Kingdom",
        "code": "UK"
      },
      {
        "label": "United States Minor Outlying Islands",
        "code": "UM"
      },
      {
        "label": "United States of America",
        "code": "US"
      },
      {
        "label": "Uruguay",
        "code": "UY"
      },
      {
        "label": "Uzbekistan",
        "code": "UZ"
      },
      {
        "label": "Venezuela",
        "code": "VE"
      },
      {
        "label": "Vietnam",
        "code": "VN"
      }
    ]
  },
  {
    "id": "listingType",
    "param": "listing_type",
    "label": "Listing type",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Auction",
        "code": "Auction"
      },
      {
        "label": "Buy now",
        "code": "BuyItNow"
      }
    ]
  },
  {
    "id": "checkoutAvailable",
    "param": "checkout_available",
    "label": "Buyer protection (Trusted Checkout)",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Includes buyer protection",
        "code": "yes"
      }
    ]
  },
  {
    "id": "stockInfo",
    "param": "stock_info",
    "label": "Availability",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Item is in stock",
        "code": "InStock"
      },
      {
        "label": "On order",
        "code": "OnOrder"
      },
      {
        "label": "On request",
        "code": "OnRequest"
      }
    ]
  },
  {
    "id": "specials",
    "param": "specials",
    "label": "Scope of delivery",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Original box and original papers",
        "code": "102"
      },
      {
        "label": "Original box",
        "code": "103"
      },
      {
        "label": "Original papers",
        "code": "104"
      }
    ]
  },
  {
    "id": "otherAttributes",
    "param": "other_attributes",
    "label": "Other attributes",
    "inputType": "Checkbox",
    "searchable": false,
    "values": [
      {
        "label": "Central seconds",
        "code": "1201"
      },
      {
        "label": "Small seconds",
        "code": "1202"
      },
      {
        "label": "Guilloché dial",
        "code": "1203"
      },
      {
        "label": "Gemstones/diamonds",
        "code": "1204"
      },
      {
        "label": "Luminous numerals",
        "code": "1205"
      },
      {
        "label": "Geneva seal",
        "code": "1206"
      },
      {
        "label": "Chronometer",
        "code": "1207"
      },
      {
        "label": "Rotating bezel",
        "code": "1208"
      },
      {
        "label": "Limited edition",
        "code": "1209"
      },
      {
        "label": "Crown on the left",
        "code": "1210"
      },
      {
        "label": "Screw-down crown",
        "code": "1211"
      },
      {
        "label": "Guilloché dial (handwork)",
        "code": "1212"
      },
      {
        "label": "Tempered blue hands",
        "code": "1213"
      },
      {
        "label": "Luminous hands",
        "code": "1214"
      },
      {
        "label": "Display back",
        "code": "1215"
      },
      {
        "label": "Skeletonized",
        "code": "1216"
      },
      {
        "label": "Power reserve display",
        "code": "1217"
      },
      {
        "label": "Helium valve",
        "code": "1218"
      },
      {
        "label": "Quick set",
        "code": "1219"
      },
      {
        "label": "Screw-down push buttons",
        "code": "1220"
      },
      {
        "label": "Only original parts",
        "code": "1221"
      },
      {
        "label": "Luminous indices",
        "code": "1222"
      },
      {
        "label": "PVD/DLC coating",
        "code": "1223"
      },
      {
        "label": "World time watch",
        "code": "1224"
      },
      {
        "label": "Master chronometer",
        "code": "1225"
      },
      {
        "label": "Smartwatch",
        "code": "1226"
      },
      {
        "label": "Solar watch",
        "code": "1227"
      },
      {
        "label": "One-hand watch",
        "code": "1228"
      }
    ]
  }
];
